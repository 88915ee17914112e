% entry: jacobi2d(120)
function U = jacobi2d(n)
% Five-point Jacobi sweeps on an n-by-n grid with fixed boundary values.
U = zeros(n, n);
U(1, :) = 1;
Unew = U;
for sweep = 1:10
  for i = 2:n-1
    for j = 2:n-1
      Unew(i, j) = 0.25 * (U(i-1, j) + U(i+1, j) + U(i, j-1) + U(i, j+1));
    end
  end
  U = Unew;
end
end
