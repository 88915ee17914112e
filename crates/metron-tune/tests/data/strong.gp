
cmp_path = '/cygdrive/d/STUD_ER/MI/CodeGenerator/'

range_genes_def = [
["domain_numBlocks_x", 1, 1],
["domain_numBlocks_y", 1, 2],
["domain_numBlocks_z", 1, 2],
["domain_numFragPerBlock_x", 1, 2],
["domain_numFragPerBlock_y", 1, 2],
["domain_numFragPerBlock_z", 1, 2],
["domain_fragLength_x", 1, 1],
["domain_fragLength_y", 1, 1],
["domain_fragLength_z", 1, 1],
["l3tmp_numPre", 0, 4],
["l3tmp_numPost", 0, 4],
["maxLevel", 7, 1]#ignored actually.
]

list_genes_def = [
["comm_strategyFragment", [6, 26]],
["l3tmp_smoother", ["\"GS\"", "\"Jac\"", "\"RBGS\""] ]
]

const_genes = [
["targetCompiler", "\"GCC\""],
["simd_instructionSet", "\"SSE3\""],
["dimensionality", 3],
["domain_summarizeBlocks", "false"],
["omp_parallelizeLoopOverDimensions", "false"],
["l3tmp_genFunctionBC", "false"],#only for 2D
["l3tmp_genAdvancedTimers", "true"],\
["advTimer_timerType", "\"QPC\""]
]

#basic restrictions
generate_predefined = False
num_omp_per_mpi = [1, 8]
num_mpi = [1, 8]
num_total_threads = [1, 8]

run_while_generating_or_genetics = True
out_path = '../out_genetics_strong/'
lib_path = '../library/'

#advanced restrictions
strong_scale = 256

#file name for timers
measured_timers_fname = "TimersAll.msd"

#genetics settings
population_size = 30
max_unique_units = 20
timer_to_use = 'stopWatch'
mutation_chance = 100
processing_strategy = "avg"
use_elitism = True
