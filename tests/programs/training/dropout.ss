# dropout is active only under value_and_grad: a new mask each run, the same
# masks every time the program runs; a plain call is the identity.
dim D = 8
model M:
    param w: [D] = ones
fn loss(m: M, x: [D]) -> [] = sum(dropout(m.w * x, rate=0.5))
fn main():
    m = M(seed=0)
    x = zeros([D]) + 1.0
    for i in range(3):
        l, g = value_and_grad(loss, m, x)
        print(l, g.w)
    print(loss(m, x))
