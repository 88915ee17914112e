function a = mixed_orientation(n)
% 000 Listing 6.4: a row result from a row and a column vector.
a = zeros(1, n);
b = rand(1, n);
c = rand(n, 1);
for i = 1:n
  a(i) = b(i) + c(i);
end
end
