function x = tridiagonal(n)
% Thomas algorithm for a diagonally dominant tridiagonal system. Forward elimination and
% back substitution carry true dependences (x(i) needs x(i+1)): must not be vectorised.
a = rand(1, n); b = 4 + rand(1, n); c = rand(1, n); d = rand(1, n);
cp = zeros(1, n); dp = zeros(1, n); x = zeros(1, n);
cp(1) = c(1) / b(1);
dp(1) = d(1) / b(1);
for i = 2:n
  m = b(i) - a(i)*cp(i-1);
  cp(i) = c(i) / m;
  dp(i) = (d(i) - a(i)*dp(i-1)) / m;
end
x(n) = dp(n);
for i = n-1:-1:1
  x(i) = dp(i) - cp(i)*x(i+1);
end
end
