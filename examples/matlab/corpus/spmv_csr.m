% entry: spmv_csr(3000)
function y = spmv_csr(n)
% Sparse matrix-vector product in CSR form: row pointers and column indices.
nnzPerRow = 5;
rowPtr = 1:nnzPerRow:(n * nnzPerRow + 1);
colIdx = zeros(1, n * nnzPerRow);
for k = 1:n * nnzPerRow
  colIdx(k) = mod(k * 7, n) + 1;
end
vals = rand(1, n * nnzPerRow);
x = rand(1, n);
y = zeros(1, n);
for row = 1:n
  acc = 0;
  for k = rowPtr(row):rowPtr(row + 1) - 1
    acc = acc + vals(k) * x(colIdx(k));
  end
  y(row) = acc;
end
end
