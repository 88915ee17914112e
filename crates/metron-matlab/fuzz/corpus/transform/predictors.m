function px = predictors(n)
% Livermore kernel 9 (integrate predictors), on row vectors of a 13 x n table.
c0 = 0.5; dm22 = 0.1; dm23 = 0.2; dm24 = 0.3; dm25 = 0.4; dm26 = 0.5; dm27 = 0.6; dm28 = 0.7;
p3 = rand(1, n); p5 = rand(1, n); p6 = rand(1, n); p7 = rand(1, n);
p8 = rand(1, n); p9 = rand(1, n); p10 = rand(1, n); p11 = rand(1, n); p13 = rand(1, n);
px = zeros(1, n);
for i = 1:n
  px(i) = dm28*p13(i) + dm27*p11(i) + dm26*p10(i) + dm25*p9(i) + ...
          dm24*p8(i) + dm23*p7(i) + dm22*p6(i) + c0*(p5(i) + p3(i));
end
end
