function [y, t] = bug2_stale_loop_variable(n)
  % issue 14, bug 2: the loop variable in a 2-D read must become a range, not stay stale
  f = reshape(1:4*n, 4, n);
  hidden_weights = magic(n + 2);
  y = zeros(1, n);
  for k = 1:n
    y(k) = f(1, k) * 2;
  end
  t = zeros(1, n);
  for j = 1:n
    t(j) = hidden_weights(2, j) + sum(hidden_weights(3, j));
  end
end
