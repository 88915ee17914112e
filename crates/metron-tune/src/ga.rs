//! The genetic algorithm of 002 Ch. 4: roulette-wheel selection on inverse fitness (§4.2) or
//! random parents (§4.4), one-point or uniform crossover, mutation with probability
//! 1/`mutation_chance` per unit and then 50% per gene, elitism, and the unique-unit budget of
//! §4.5, here a hard cap checked unit by unit (the thesis checked it once per generation and
//! overshot: 76 units for a budget of 50, its footnote 11).
//!
//! Failed units have fitness +inf and roulette weight 0: they never become parents.

use std::collections::HashMap;

use serde::Serialize;

use crate::error::Result;
use crate::rng::Rng;
use crate::space::{Genome, Space};

/// Parent selection (002 §4.2, §4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Selection {
    /// p_i = (1/f_i) / Σ 1/f_j.
    Roulette,
    /// Parents drawn uniformly: the baseline that shows whether selection helps.
    Random,
    /// Linear ranking (weight n for the best, 1 for the worst finite unit): not in the thesis;
    /// keeps the pressure when fitness values are close, where 1/f barely separates them.
    Rank,
}

/// How a gene chosen for mutation changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mutation {
    /// To a random value of the gene (002 Listing 4.4).
    Uniform,
    /// Range genes step to a neighbouring value (±1 or ±2), list genes as `Uniform`: not in
    /// the thesis; uses the order of range genes, which the uniform mutation ignores.
    Creep,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Crossover {
    Uniform,
    OnePoint,
}

#[derive(Debug, Clone, Serialize)]
pub struct GaConfig {
    pub population: usize,
    /// Generations including the initial one (002 Listing 4.3 `max_generation_count`).
    pub generations: usize,
    /// 002 Listing 4.5 `max_unique_units`: never more distinct units than this are evaluated.
    pub max_unique: Option<usize>,
    /// One chance in `mutation_chance` per unit (002 Listing 4.4).
    pub mutation_chance: u32,
    /// Best units copied unchanged into the next generation (0 = no elitism).
    pub elitism: usize,
    pub selection: Selection,
    pub crossover: Crossover,
    pub mutation: Mutation,
    /// A child that is a unit already evaluated (or already in the next generation) is mutated
    /// again, up to 20 times, until it is new: not in the thesis, whose populations fill with
    /// copies of the best once they converge.
    pub novelty: bool,
    /// Larger fitness is better; roulette then weighs by fitness instead of its inverse.
    pub maximize: bool,
    pub seed: u64,
}

impl Default for GaConfig {
    fn default() -> Self {
        // 002 Listing 4.6: the strong-scaling setup.
        GaConfig {
            population: 30,
            generations: 20,
            max_unique: None,
            mutation_chance: 100,
            elitism: 1,
            selection: Selection::Roulette,
            crossover: Crossover::Uniform,
            mutation: Mutation::Uniform,
            novelty: false,
            maximize: false,
            seed: 1,
        }
    }
}

/// Measures units. The GA hands over only units it has not seen; `None` is a failed unit.
pub trait Evaluator {
    fn evaluate(&mut self, units: &[Genome]) -> Result<Vec<Option<f64>>>;
}

/// One generation's line of the convergence file (002 Listing 4.7).
#[derive(Debug, Clone, Serialize)]
pub struct Generation {
    pub index: usize,
    /// Distinct units evaluated so far.
    pub unique_units: usize,
    /// Best fitness in this generation's population (None: every unit failed).
    pub best: Option<f64>,
    pub best_genome: Option<Genome>,
}

#[derive(Debug, Clone, Serialize)]
pub struct GaRun {
    pub generations: Vec<Generation>,
    /// Every distinct unit in the order it was first evaluated, with its fitness.
    pub evaluated: Vec<(Genome, Option<f64>)>,
}

impl GaRun {
    pub fn unique_units(&self) -> usize {
        self.evaluated.len()
    }

    /// The best unit over the whole run.
    pub fn best(&self, maximize: bool) -> Option<(&Genome, f64)> {
        self.evaluated
            .iter()
            .filter_map(|(g, f)| f.map(|f| (g, f)))
            .min_by(|a, b| cost(a.1, maximize).total_cmp(&cost(b.1, maximize)))
    }

    /// Distinct evaluations until the first unit at least as good as `threshold` (the peer
    /// comparison's measure), or None if none was.
    pub fn evaluations_to(&self, threshold: f64, maximize: bool) -> Option<usize> {
        self.evaluated
            .iter()
            .position(|(_, f)| f.is_some_and(|f| cost(f, maximize) <= cost(threshold, maximize)))
            .map(|i| i + 1)
    }
}

/// Lower is better: the fitness itself, or its inverse when maximising. Failed units: +inf.
pub fn cost(fitness: f64, maximize: bool) -> f64 {
    if fitness.is_nan() {
        f64::INFINITY
    } else if maximize {
        if fitness > 0.0 {
            1.0 / fitness
        } else {
            f64::INFINITY
        }
    } else {
        fitness
    }
}

/// Roulette weight: 1/cost (002 §4.2), 0 for failed units.
fn weight(fitness: Option<f64>, maximize: bool) -> f64 {
    match fitness {
        Some(f) => {
            let c = cost(f, maximize);
            if c.is_finite() {
                1.0 / c.max(1e-300)
            } else {
                0.0
            }
        }
        None => 0.0,
    }
}

/// Creep mutation: the share of mutated range genes that jump to a random value anyway, so
/// that a population caught in a local optimum can leave it.
const CREEP_JUMP: f64 = 0.25;

struct Ga<'a, E: Evaluator> {
    cfg: &'a GaConfig,
    space: &'a Space,
    eval: &'a mut E,
    rng: Rng,
    seen: HashMap<Genome, Option<f64>>,
    run: GaRun,
}

/// Runs the GA. `initial` units (002's predefined units) open the first population;
/// `on_generation` sees each generation as soon as it is complete (files, store, progress).
pub fn run<E: Evaluator>(
    cfg: &GaConfig,
    space: &Space,
    eval: &mut E,
    initial: &[Genome],
    on_generation: &mut dyn FnMut(&Generation, &GaRun) -> Result<()>,
) -> Result<GaRun> {
    let mut ga = Ga {
        cfg,
        space,
        eval,
        rng: Rng::new(cfg.seed),
        seen: HashMap::new(),
        run: GaRun {
            generations: Vec::new(),
            evaluated: Vec::new(),
        },
    };
    let mut population: Vec<Genome> = initial.iter().take(cfg.population).cloned().collect();
    while population.len() < cfg.population {
        match space.random_valid(&mut ga.rng, 100_000) {
            Some(g) => population.push(g),
            None => break,
        }
    }
    for index in 0..cfg.generations.max(1) {
        if index > 0 {
            population = ga.next_generation(&population);
        }
        population = ga.evaluate(population)?;
        let generation = ga.record(index, &population);
        on_generation(&generation, &ga.run)?;
        ga.run.generations.push(generation);
        if ga.budget_left() == Some(0) || population.is_empty() {
            break;
        }
    }
    Ok(ga.run)
}

impl<E: Evaluator> Ga<'_, E> {
    fn budget_left(&self) -> Option<usize> {
        self.cfg
            .max_unique
            .map(|m| m.saturating_sub(self.run.evaluated.len()))
    }

    /// Evaluates the new units of a population within the budget. Units over the budget are
    /// dropped from the population: the cap is hard.
    fn evaluate(&mut self, population: Vec<Genome>) -> Result<Vec<Genome>> {
        let mut fresh: Vec<Genome> = Vec::new();
        let mut kept = Vec::with_capacity(population.len());
        for g in population {
            if self.seen.contains_key(&g) || fresh.contains(&g) {
                kept.push(g);
            } else if self.budget_left().is_none_or(|left| fresh.len() < left) {
                fresh.push(g.clone());
                kept.push(g);
            }
        }
        if !fresh.is_empty() {
            let fitness = self.eval.evaluate(&fresh)?;
            for (g, f) in fresh.into_iter().zip(fitness) {
                self.seen.insert(g.clone(), f);
                self.run.evaluated.push((g, f));
            }
        }
        Ok(kept)
    }

    fn fitness(&self, g: &Genome) -> Option<f64> {
        self.seen.get(g).copied().flatten()
    }

    fn record(&self, index: usize, population: &[Genome]) -> Generation {
        let best = population
            .iter()
            .filter_map(|g| self.fitness(g).map(|f| (g, f)))
            .min_by(|a, b| cost(a.1, self.cfg.maximize).total_cmp(&cost(b.1, self.cfg.maximize)));
        Generation {
            index,
            unique_units: self.run.evaluated.len(),
            best: best.map(|(_, f)| f),
            best_genome: best.map(|(g, _)| g.clone()),
        }
    }

    fn next_generation(&mut self, population: &[Genome]) -> Vec<Genome> {
        let maximize = self.cfg.maximize;
        let mut ranked: Vec<&Genome> = population.iter().collect();
        ranked.sort_by(|a, b| {
            let ca = self.fitness(a).map_or(f64::INFINITY, |f| cost(f, maximize));
            let cb = self.fitness(b).map_or(f64::INFINITY, |f| cost(f, maximize));
            ca.total_cmp(&cb)
        });
        let mut next: Vec<Genome> = ranked
            .iter()
            .take(self.cfg.elitism)
            .map(|g| (*g).clone())
            .collect();
        let weights: Vec<f64> = if self.cfg.selection == Selection::Rank {
            rank_weights(population, &ranked, |g| self.fitness(g).is_some())
        } else {
            population
                .iter()
                .map(|g| weight(self.fitness(g), maximize))
                .collect()
        };
        while next.len() < self.cfg.population {
            let mut c = self.child(population, &weights);
            if self.cfg.novelty {
                for _ in 0..20 {
                    if !self.seen.contains_key(&c) && !next.contains(&c) {
                        break;
                    }
                    let mut m = c.clone();
                    self.mutate_genes(&mut m);
                    if self.space.is_valid(&m) {
                        c = m;
                    }
                }
            }
            next.push(c);
        }
        next
    }

    /// A valid child of two selected parents, or a random valid unit when 100 tries fail.
    fn child(&mut self, population: &[Genome], weights: &[f64]) -> Genome {
        for _ in 0..100 {
            let a = self.select(population, weights);
            let b = self.select(population, weights);
            let mut c = self.crossover(&population[a], &population[b]);
            self.mutate(&mut c);
            if self.space.is_valid(&c) {
                return c;
            }
        }
        self.space
            .random_valid(&mut self.rng, 100_000)
            .unwrap_or_else(|| population[0].clone())
    }

    fn select(&mut self, population: &[Genome], weights: &[f64]) -> usize {
        let total: f64 = weights.iter().sum();
        if self.cfg.selection == Selection::Random || total <= 0.0 || !total.is_finite() {
            return self.rng.below(population.len());
        }
        let mut x = self.rng.unit() * total;
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        weights.iter().rposition(|w| *w > 0.0).unwrap_or(0)
    }

    fn crossover(&mut self, a: &Genome, b: &Genome) -> Genome {
        match self.cfg.crossover {
            Crossover::Uniform => a
                .iter()
                .zip(b)
                .map(|(x, y)| if self.rng.chance(0.5) { *x } else { *y })
                .collect(),
            Crossover::OnePoint => {
                // Genes beyond the point are swapped; one of the two children is kept.
                let point = 1 + self.rng.below(a.len().max(2) - 1);
                let (first, second) = if self.rng.chance(0.5) { (a, b) } else { (b, a) };
                first[..point.min(a.len())]
                    .iter()
                    .chain(&second[point.min(a.len())..])
                    .copied()
                    .collect()
            }
        }
    }

    fn mutate(&mut self, g: &mut Genome) {
        if self.cfg.mutation_chance == 0 || self.rng.below(self.cfg.mutation_chance as usize) != 0 {
            return;
        }
        self.mutate_genes(g);
    }

    /// Each gene with 50% (002 Listing 4.4's "50% chance for each gene").
    fn mutate_genes(&mut self, g: &mut Genome) {
        for (i, gene) in self.space.genes.iter().enumerate() {
            if !self.rng.chance(0.5) {
                continue;
            }
            let n = gene.values.len();
            g[i] = match (self.cfg.mutation, gene.kind) {
                (Mutation::Creep, crate::space::GeneKind::Range)
                    if n > 1 && !self.rng.chance(CREEP_JUMP) =>
                {
                    let step = 1 + self.rng.below(2) as i64;
                    let up = self.rng.chance(0.5);
                    let v = g[i] as i64 + if up { step } else { -step };
                    v.clamp(0, n as i64 - 1) as u32
                }
                _ => self.rng.below(n) as u32,
            };
        }
    }
}

/// Linear ranking weights in population order: the best finite unit weighs as many as there
/// are finite units, the worst 1, failed units 0.
fn rank_weights(
    population: &[Genome],
    ranked: &[&Genome],
    finite: impl Fn(&Genome) -> bool,
) -> Vec<f64> {
    let ok: Vec<&Genome> = ranked.iter().copied().filter(|g| finite(g)).collect();
    population
        .iter()
        .map(|g| match ok.iter().position(|r| *r == g) {
            Some(i) => (ok.len() - i) as f64,
            None => 0.0,
        })
        .collect()
}

/// Random search: distinct valid units drawn uniformly until the budget is spent (the peer
/// comparison's baseline; not the random-parent GA of 002 §4.4).
pub fn random_search<E: Evaluator>(
    space: &Space,
    eval: &mut E,
    budget: usize,
    seed: u64,
) -> Result<GaRun> {
    let mut rng = Rng::new(seed);
    let mut run = GaRun {
        generations: Vec::new(),
        evaluated: Vec::new(),
    };
    let mut seen = std::collections::HashSet::new();
    let mut misses = 0;
    while run.evaluated.len() < budget && misses < 10_000 {
        let Some(g) = space.random_valid(&mut rng, 100_000) else {
            break;
        };
        if !seen.insert(g.clone()) {
            misses += 1;
            continue;
        }
        misses = 0;
        let f = eval.evaluate(std::slice::from_ref(&g))?[0];
        run.evaluated.push((g, f));
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::space::Gene;

    /// A separable bowl with its optimum at (3, 5, 1): the GA must find what brute force finds.
    struct Bowl(usize);
    impl Evaluator for Bowl {
        fn evaluate(&mut self, units: &[Genome]) -> Result<Vec<Option<f64>>> {
            self.0 += units.len();
            Ok(units
                .iter()
                .map(|g| {
                    let d = |x: u32, o: i64| (x as i64 - o).pow(2) as f64;
                    Some(1.0 + d(g[0], 3) + d(g[1], 5) + 2.0 * d(g[2], 1))
                })
                .collect())
        }
    }

    fn space() -> Space {
        Space {
            genes: vec![
                Gene::range("a", 0, 8, 1),
                Gene::range("b", 0, 8, 1),
                Gene::range("c", 0, 4, 1),
            ],
            ..Space::default()
        }
    }

    #[test]
    fn unique_budget_is_a_hard_cap() {
        for seed in 0..20 {
            let cfg = GaConfig {
                max_unique: Some(37),
                generations: 1000,
                seed,
                ..GaConfig::default()
            };
            let mut e = Bowl(0);
            let run = run(&cfg, &space(), &mut e, &[], &mut |_, _| Ok(())).unwrap();
            assert_eq!(e.0, 37, "seed {seed}");
            assert_eq!(run.unique_units(), 37);
            assert_eq!(run.generations.last().unwrap().unique_units, 37);
        }
    }

    #[test]
    fn same_seed_same_run() {
        let cfg = GaConfig::default();
        let a = run(&cfg, &space(), &mut Bowl(0), &[], &mut |_, _| Ok(())).unwrap();
        let b = run(&cfg, &space(), &mut Bowl(0), &[], &mut |_, _| Ok(())).unwrap();
        assert_eq!(a.evaluated, b.evaluated);
    }

    #[test]
    fn elitism_never_loses_the_best() {
        let cfg = GaConfig {
            elitism: 1,
            ..GaConfig::default()
        };
        for seed in 0..10 {
            let cfg = GaConfig {
                seed,
                ..cfg.clone()
            };
            let r = run(&cfg, &space(), &mut Bowl(0), &[], &mut |_, _| Ok(())).unwrap();
            let bests: Vec<f64> = r.generations.iter().map(|g| g.best.unwrap()).collect();
            assert!(bests.windows(2).all(|w| w[1] <= w[0]), "{bests:?}");
        }
    }

    #[test]
    fn ga_finds_the_brute_force_optimum_more_often_than_random_parents() {
        let hits = |selection| {
            (0..40)
                .filter(|&seed| {
                    let cfg = GaConfig {
                        selection,
                        population: 20,
                        generations: 15,
                        max_unique: Some(60),
                        seed,
                        ..GaConfig::default()
                    };
                    let r = run(&cfg, &space(), &mut Bowl(0), &[], &mut |_, _| Ok(())).unwrap();
                    r.best(false).unwrap().1 == 1.0
                })
                .count()
        };
        let roulette = hits(Selection::Roulette);
        let random = hits(Selection::Random);
        assert!(roulette > random, "roulette {roulette} vs random {random}");
    }

    #[test]
    fn failed_units_are_never_parents() {
        // Everything with a == 0 fails; with roulette weight 0 the population must leave it.
        struct Fails;
        impl Evaluator for Fails {
            fn evaluate(&mut self, units: &[Genome]) -> Result<Vec<Option<f64>>> {
                Ok(units.iter().map(|g| (g[0] != 0).then_some(1.0)).collect())
            }
        }
        let w = [weight(None, false), weight(Some(2.0), false)];
        assert_eq!(w, [0.0, 0.5]);
        let cfg = GaConfig::default();
        let r = run(&cfg, &space(), &mut Fails, &[], &mut |_, _| Ok(())).unwrap();
        assert!(r.generations.iter().all(|g| g.best == Some(1.0)));
    }

    fn ga_for<'a>(cfg: &'a GaConfig, space: &'a Space, eval: &'a mut Bowl) -> Ga<'a, Bowl> {
        Ga {
            cfg,
            space,
            eval,
            rng: Rng::new(7),
            seen: HashMap::new(),
            run: GaRun {
                generations: Vec::new(),
                evaluated: Vec::new(),
            },
        }
    }

    #[test]
    fn mutation_is_one_in_mutation_chance_then_half_of_the_genes() {
        // 002 Listing 4.4: 1/mutation_chance per unit, then 50% per gene. With 1000 values a
        // mutated gene almost never keeps its value, so changes count mutations.
        let space = Space {
            genes: (0..3)
                .map(|i| Gene::range(&format!("g{i}"), 0, 1000, 1))
                .collect(),
            ..Space::default()
        };
        let cfg = GaConfig {
            mutation_chance: 4,
            ..GaConfig::default()
        };
        let mut bowl = Bowl(0);
        let mut ga = ga_for(&cfg, &space, &mut bowl);
        let (n, mut units, mut genes) = (40_000, 0, 0);
        for _ in 0..n {
            let mut g = vec![500, 500, 500];
            ga.mutate(&mut g);
            let changed = g.iter().filter(|&&x| x != 500).count();
            units += usize::from(changed > 0);
            genes += changed;
        }
        // P(unit changes) = 1/4 * (1 - 0.5^3); genes changed per unit = 1/4 * 3 * 0.5.
        let p_unit = units as f64 / n as f64;
        let per_unit = genes as f64 / n as f64;
        assert!((p_unit - 0.21875).abs() < 0.01, "{p_unit}");
        assert!((per_unit - 0.375).abs() < 0.015, "{per_unit}");
    }

    #[test]
    fn one_point_crossover_keeps_a_prefix_and_a_suffix() {
        let space = Space {
            genes: (0..6)
                .map(|i| Gene::range(&format!("g{i}"), 0, 3, 1))
                .collect(),
            ..Space::default()
        };
        let cfg = GaConfig {
            crossover: Crossover::OnePoint,
            ..GaConfig::default()
        };
        let mut bowl = Bowl(0);
        let mut ga = ga_for(&cfg, &space, &mut bowl);
        let (a, b) = (vec![0u32; 6], vec![1u32; 6]);
        for _ in 0..200 {
            let c = ga.crossover(&a, &b);
            // One switch from one parent to the other, never at the ends.
            let switches = c.windows(2).filter(|w| w[0] != w[1]).count();
            assert_eq!(switches, 1, "{c:?}");
        }
    }

    #[test]
    fn creep_mutation_steps_range_genes_to_neighbours() {
        let space = Space {
            genes: vec![Gene::range("r", 0, 100, 1)],
            ..Space::default()
        };
        let cfg = GaConfig {
            mutation: Mutation::Creep,
            ..GaConfig::default()
        };
        let mut bowl = Bowl(0);
        let mut ga = ga_for(&cfg, &space, &mut bowl);
        let (mut near, mut far) = (0, 0);
        for start in [0u32, 50, 99] {
            for _ in 0..6000 {
                let mut g = vec![start];
                ga.mutate_genes(&mut g);
                assert!(g[0] < 100);
                if start != 50 {
                    continue; // the ends only check the bounds (steps past them are clamped)
                }
                match (g[0] as i64 - start as i64).abs() {
                    0 => {}
                    1 | 2 => near += 1,
                    _ => far += 1,
                }
            }
        }
        // A quarter of the mutated genes jump (and land more than 2 away ~95% of the time).
        let jump = far as f64 / (near + far) as f64;
        assert!((jump - CREEP_JUMP * 0.95).abs() < 0.04, "{jump}");
    }

    #[test]
    fn rank_weights_order_finite_units_and_zero_failed_ones() {
        let pop = vec![vec![2], vec![0], vec![1]];
        let ranked: Vec<&Genome> = vec![&pop[1], &pop[2], &pop[0]];
        let w = rank_weights(&pop, &ranked, |g| g[0] != 2);
        assert_eq!(w, vec![0.0, 2.0, 1.0]);
    }

    #[test]
    fn roulette_selects_in_proportion_to_inverse_fitness() {
        // 002 §4.2: p_i = (1/f_i) / sum_j (1/f_j); fitness 1, 2, 4 -> 4/7, 2/7, 1/7; failed 0.
        let space = space();
        let cfg = GaConfig::default();
        let mut bowl = Bowl(0);
        let mut ga = ga_for(&cfg, &space, &mut bowl);
        let pop = vec![vec![0, 0, 0], vec![1, 0, 0], vec![2, 0, 0], vec![3, 0, 0]];
        let w: Vec<f64> = [Some(1.0), Some(2.0), Some(4.0), None]
            .iter()
            .map(|f| weight(*f, false))
            .collect();
        let mut counts = [0usize; 4];
        let n = 70_000;
        for _ in 0..n {
            counts[ga.select(&pop, &w)] += 1;
        }
        let p: Vec<f64> = counts.iter().map(|c| *c as f64 / n as f64).collect();
        for (got, want) in p.iter().zip([4.0 / 7.0, 2.0 / 7.0, 1.0 / 7.0, 0.0]) {
            assert!((got - want).abs() < 0.01, "{p:?}");
        }
    }
}
