function [b, c, d] = mc2mc_style(n)
% Vectorised code as Mc2Mc writes it: the iteration space lives in a variable (000 §5.4).
a = rand(1, n + 1);
b = zeros(1, n);
I = 1:n;
J = 2:n+1;
b(I) = a(J) - a(I);     % both ranges can go back into the index
n = n - 1;              % I's bound changes: below, I must stay a variable
c = a(I);
if n > 3
  K = 1:2:n;
else
  K = 1:n;
end
d = a(K);               % two definitions of K reach here: no inlining
end
