function [q, r] = bug3_other_subscripts(n, m)
  % issue 14, bug 3: under --assume-orientation the other subscripts must stay
  % metron: scalar m
  f = reshape(1:3*n, n, 3);
  q = 0;
  for ii = 1:n
    q = q + f(ii, m);
  end
  r = zeros(1, n);
  for ii = 1:n
    r(ii) = f(ii, m) - f(ii, 1);
  end
end
