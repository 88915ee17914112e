function [a, b] = reorder(n)
% S1 reads b(i-1), which S2 wrote one iteration earlier: the π-graph orders S2 before S1.
a = zeros(1, n);
b = zeros(1, n);
c = rand(1, n);
for i = 2:n
  a(i) = b(i-1) + 1;
  b(i) = c(i) * 2;
end
end
