% entry: vector_update(100000)
function [z, dotp] = vector_update(n)
% A few BLAS-1 style loops as numeric codes write them.
x = rand(1, n);
y = rand(1, n);
z = zeros(1, n);
for i = 1:n
  z(i) = 2.5 * x(i) - y(i) / 3;
end
dotp = 0;
for i = 1:n
  dotp = dotp + x(i) * y(i);
end
end
