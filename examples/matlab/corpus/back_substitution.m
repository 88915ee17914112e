% entry: back_substitution(400)
function x = back_substitution(n)
% Solves U x = b for an upper-triangular U by back substitution.
U = triu(rand(n, n)) + n * eye(n);
b = rand(n, 1);
x = zeros(n, 1);
for i = n:-1:1
  s = 0;
  for j = i+1:n
    s = s + U(i, j) * x(j);
  end
  x(i) = (b(i) - s) / U(i, i);
end
end
