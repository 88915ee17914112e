class A{
public:
  void foo(double *a, double *b){
    for(int i = 0; i < 10; i++){
      for(int j = 0; j < b[i]; j++){
        #pragma @Annotation {lp_cond:y}
        a[j] = a[j] * b[j];
      }
    }
  }
};
int main(){
  A a;
  double m[] = {1.0, 2.0, 3.0, 4.0, 5.0};
  double n[] = {5.0, 6.0, 7.0, 8.0, 9.0, 10.0};
  a.foo(m, n);
}
