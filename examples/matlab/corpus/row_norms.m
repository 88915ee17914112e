% entry: row_norms(600)
function [norms, colMax] = row_norms(n)
% Euclidean norm of every row and the largest entry of every column.
A = randn(n, n);
A2 = A .^ 2;
norms = zeros(n, 1);
for i = 1:n
  norms(i) = sqrt(sum(A2(i, :)));
end
colMax = zeros(1, n);
for j = 1:n
  colMax(j) = max(A(:, j));
end
end
