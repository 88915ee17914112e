function x = hydro(n)
% Livermore kernel 1 (hydro fragment).
q = 0.5; r = 0.25; t = 0.125;
y = rand(1, n);
z = rand(1, n + 11);
x = zeros(1, n);
for k = 1:n
  x(k) = q + y(k)*(r*z(k+10) + t*z(k+11));
end
end
