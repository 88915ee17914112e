function [u, a, t, d, sd, st] = kernels(n)
% The six kernels of 000 Table 3.2 as loops: update, add, triad, daxpy, sdaxpy, striad.
x = rand(1, n);
y = rand(1, n);
z = rand(1, n);
s = 1.5;

u = x;
for i = 1:n
  u(i) = s*u(i);          % update
end

a = zeros(1, n);
for i = 1:n
  a(i) = x(i) + y(i);     % add
end

t = zeros(1, n);
for i = 1:n
  t(i) = x(i) + s*y(i);   % triad
end

d = y;
for i = 1:n
  d(i) = d(i) + s*x(i);   % daxpy
end

sd = y;
for i = 1:n
  sd(i) = sd(i) + x(i)*z(i);   % sdaxpy
end

st = zeros(1, n);
for i = 1:n
  st(i) = x(i) + y(i)*z(i);    % striad
end
end
