function [a, c] = partial(n)
% Allen-Kennedy distributes the loop: S1 is a recurrence (stays a loop), S2 only reads
% what S1 wrote in the same iteration, so it becomes an array statement after the loop.
a = rand(1, n);
b = rand(1, n);
c = zeros(1, n);
for i = 2:n
  a(i) = a(i-1) + b(i);
  c(i) = a(i) * 2;
end
end
