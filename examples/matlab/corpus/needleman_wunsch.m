% entry: needleman_wunsch(300)
function [score, F] = needleman_wunsch(n)
% Global alignment score of two random DNA strings (dynamic programming table).
a = floor(4 * rand(1, n)) + 1;
b = floor(4 * rand(1, n)) + 1;
gap = -2;
F = zeros(n + 1, n + 1);
for i = 1:n+1
  F(i, 1) = (i - 1) * gap;
end
for j = 1:n+1
  F(1, j) = (j - 1) * gap;
end
for i = 2:n+1
  for j = 2:n+1
    if a(i-1) == b(j-1)
      s = 1;
    else
      s = -1;
    end
    F(i, j) = max(max(F(i-1, j-1) + s, F(i-1, j) + gap), F(i, j-1) + gap);
  end
end
score = F(n+1, n+1);
end
