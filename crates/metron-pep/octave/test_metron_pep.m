% The Octave interface of metron-pep (000 App. B, mPAPI's role), with software events.
% Run by crates/metron-pep/tests/octave.rs as: octave-cli --eval "test_metron_pep('TRACEFILE')"
% with the built MEX files on the path. Prints "metron-pep octave: ok" on success.
function test_metron_pep(trace_file)
  % Counting mode: a computation that faults in 8 MB must count >= 1900 page faults.
  metron_counters_start({'task-clock', 'page-faults'});
  x = zeros(1, 1e6);
  x(:) = 1;
  y = cumsum(x);
  s = metron_counters_stop();
  assert(isfield(s, 'task_clock') && isfield(s, 'page_faults'));
  assert(s.task_clock > 0);
  assert(s.page_faults >= 1900, sprintf('page_faults = %d', s.page_faults));
  assert(y(end) == 1e6);

  % Errors say what is wrong.
  try
    metron_counters_stop();
    error('metron:test', 'stop without start did not fail');
  catch err
    assert(!isempty(strfind(err.message, 'without')), err.message);
  end
  try
    metron_counters_start('no-such-event');
    error('metron:test', 'an unknown event did not fail');
  catch err
    assert(!isempty(strfind(err.message, 'unknown event')), err.message);
  end

  % Sampling mode: two traces of a loop that burns about 50 ms of CPU, every 1 ms.
  for k = 1:2
    metron_trace_start('cpu-clock', 1000000, 'task-clock,page-faults', trace_file, sprintf('loop%d', k));
    acc = 0;
    t0 = cputime;
    while cputime - t0 < 0.05
      acc = acc + sum(sin(1:1000));
    end
    n = metron_trace_stop();
    assert(n >= 20, sprintf('only %d samples', n));
  end
  printf('metron-pep octave: ok\n');
end
