function q = inner_product(n)
% Livermore kernel 3 (inner product), a reduction.
z = rand(1, n);
x = rand(1, n);
q = 0;
for k = 1:n
  q = q + z(k)*x(k);
end
end
