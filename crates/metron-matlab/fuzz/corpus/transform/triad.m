function a = triad(n)
% STREAM-like triad (000 Table 3.2): a(i) = b(i) + s*c(i), as a loop.
b = rand(1, n);
c = rand(1, n);
a = zeros(1, n);
s = 3;
for i = 1:n
  a(i) = b(i) + s*c(i);   % independent iterations
end
end
