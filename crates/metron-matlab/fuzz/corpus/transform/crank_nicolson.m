function u = crank_nicolson(n)
% One explicit half of a Crank-Nicolson step (the crni kind of loop of LCPC16): the new
% values depend on old ones only, so the loop is vectorisable.
u_old = rand(1, n);
u = zeros(1, n);
r = 0.4;
for i = 2:n-1
  u(i) = u_old(i) + r*(u_old(i-1) - 2*u_old(i) + u_old(i+1));
end
end
