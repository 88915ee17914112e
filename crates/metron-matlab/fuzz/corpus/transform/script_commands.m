% A script with command syntax, comments and continuation lines.
format long
n = 50;   % size
v = zeros(1, ...
          n);
w = rand(1, n);

%{
  A block comment the rewriter must keep.
%}
for k = 1:n
  v(k) = 2*w(k) + ...   % continued
         1;
end
total = 0;
for k = 1:n
  total = total + v(k);
end
odd = w(2*(1:25)-1);
