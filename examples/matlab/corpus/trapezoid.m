% entry: trapezoid(100000)
function [area, f] = trapezoid(n)
% Trapezoidal rule for the integral of exp(-t^2) on [0, 2].
h = 2 / (n - 1);
f = zeros(1, n);
for k = 1:n
  t = (k - 1) * h;
  f(k) = exp(-t^2);
end
area = 0;
for k = 1:n-1
  area = area + (f(k) + f(k+1)) * h / 2;
end
end
