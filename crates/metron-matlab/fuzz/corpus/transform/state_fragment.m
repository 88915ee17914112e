function x = state_fragment(n)
% Livermore kernel 7 (equation of state fragment).
q = 0.5; r = 0.25; t = 0.125;
u = rand(1, n + 6);
y = rand(1, n);
z = rand(1, n);
x = zeros(1, n);
for k = 1:n
  x(k) = u(k) + r*(z(k) + r*y(k)) + ...
         t*(u(k+3) + r*(u(k+2) + r*u(k+1)) + ...
            t*(u(k+6) + q*(u(k+5) + q*u(k+4))));
end
end
