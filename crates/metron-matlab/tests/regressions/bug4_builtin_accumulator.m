function [sum, max] = bug4_builtin_accumulator(n)
  % issue 14, bug 4: accumulators named like built-ins
  % metron: double n
  x = (1:n) / 3;
  sum = 0;
  for i = 1:n
    sum = sum + x(i);
  end
  max = 1;
  for i = 1:n
    max = max + x(i) * 2;
  end
end
