% entry: heat1d(4000)
function u = heat1d(n)
% Explicit finite differences for the 1-D heat equation, ping-ponging two arrays.
u = zeros(1, n);
u(round(n / 2)) = 1;
v = u;
alpha = 0.4;
for step = 1:50
  for k = 2:n-1
    v(k) = u(k) + alpha * (u(k-1) - 2 * u(k) + u(k+1));
  end
  u = v;
end
end
