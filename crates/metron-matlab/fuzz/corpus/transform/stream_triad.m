function stream_triad(LEN_1D)
%! init
s = 3.0;
a = zeros(1, LEN_1D);
b = rand(1, LEN_1D);
c = rand(1, LEN_1D);
%! loop
for i = 1:LEN_1D
  a(i) = b(i) + s*c(i);
end
%! array_op
a = b + s*c;
end
