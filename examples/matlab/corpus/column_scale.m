% entry: column_scale(400)
function B = column_scale(n)
% Scales every column of A by a weight and adds a row offset (a 2-D loop nest).
A = rand(n, n);
w = rand(1, n);
off = rand(n, 1);
B = zeros(n, n);
for i = 1:n
  for j = 1:n
    B(i, j) = A(i, j) * w(j) + off(i);
  end
end
end
