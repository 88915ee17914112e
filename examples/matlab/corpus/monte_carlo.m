% entry: monte_carlo(50000)
function [est, hits] = monte_carlo(trials)
% Monte-Carlo estimate of pi: a point counts when the user function says it is inside.
px = rand(1, trials);
py = rand(1, trials);
hits = zeros(1, trials);
for t = 1:trials
  hits(t) = inside(px(t), py(t));
end
est = 0;
for t = 1:trials
  est = est + hits(t);
end
est = 4 * est / trials;
end

function h = inside(x, y)
h = (x^2 + y^2) <= 1;
end
