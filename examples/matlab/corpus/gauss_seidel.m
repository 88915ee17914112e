% entry: gauss_seidel(100)
function V = gauss_seidel(n)
% Gauss-Seidel relaxation of a potential (in-place: each update reads new neighbours).
V = zeros(n, n);
V(:, 1) = 1;
for it = 1:5
  for i = 2:n-1
    for j = 2:n-1
      V(i, j) = (V(i-1, j) + V(i+1, j) + V(i, j-1) + V(i, j+1)) / 4;
    end
  end
end
end
