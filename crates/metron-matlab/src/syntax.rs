pub fn dump(src: &str) -> String {
    let mut p = tree_sitter::Parser::new();
    p.set_language(&tree_sitter_matlab::LANGUAGE.into()).unwrap();
    let t = p.parse(src, None).unwrap();
    t.root_node().to_sexp()
}
#[test]
fn show() {
    for s in ["x = A(2*(1:N)-1);\n", "for i=1:n\n  s = s + a(i)*b(i);\nend\n", "R = A(1:N) + compute(B.*C(1:N), cos(D./E));", "y = x';\nz = x.';\nw=-x;\nv = 1:2:n;\nhold on\n% c\nq = [1, 2 ...\n 3];\n", "function [a,b] = f(x, y)\na = x;\nend\n", "x = A(:, end);"] {
        println!("{}\n", dump(s));
    }
}
