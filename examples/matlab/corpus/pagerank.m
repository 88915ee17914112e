% entry: pagerank(2000)
function rank = pagerank(n)
% PageRank by power iteration over an edge list (each page links to three others).
m = 3 * n;
src = zeros(1, m);
dst = zeros(1, m);
for e = 1:m
  src(e) = mod(e - 1, n) + 1;
  dst(e) = mod(e * 13, n) + 1;
end
outdeg = 3 * ones(1, n);
d = 0.85;
rank = ones(1, n) / n;
for it = 1:20
  contrib = zeros(1, n);
  for e = 1:m
    contrib(dst(e)) = contrib(dst(e)) + rank(src(e)) / outdeg(src(e));
  end
  for p = 1:n
    rank(p) = (1 - d) / n + d * contrib(p);
  end
end
end
