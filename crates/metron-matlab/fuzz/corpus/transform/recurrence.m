function x = recurrence(n)
% A first-order linear recurrence: x(i) reads x(i-1), a true loop-carried dependence.
% Vectorising it would read old values; the loop must be left alone.
x = rand(1, n);
y = rand(1, n);
for i = 2:n
  x(i) = x(i-1) + y(i);
end
end
