# Smaller features: literals that broadcast, static `if` in device code,
# slices, several axes in over=, tuples, f-strings.
dim D = 3
dim C = 4
dim T = 5
fn a(x: [n D]) -> [n D] = x + [[1.0, 2.0, 3.0]]
fn b(x: [n D]) -> [n D]:
    if D > 2:
        return x * 2
    else:
        return x
fn c(x: [t D]) -> [D] = x[t=0]
fn d(x: [n D C]) -> [n] = sum(x, over=[D C])
fn e(x: [n D]) -> [n D] = x - mean(x, over=D, keep=true)
fn f(x: [T D]) -> [4 D] = x[T=1:]
fn g(x: [T D]) -> [2 D] = x[T=1:3]
fn h(x: [n D]) -> [n D]:
    y = x
    for i in range(D):
        y = y + f32(i)
    return y
fn k(x: [n D], y: [n D]) -> [] = mean(f32(argmax(x, over=D) == argmax(y, over=D)))
fn m(x: [n D]) -> ([n], [n D]):
    return sum(x, over=D), x
fn p(x: [n D]) -> [n]:
    s, t = m(x)
    return s + sum(t, over=-1)
fn q(x: [n D]) -> [D n] = rearrange(x, n d -> d n)
fn r(x: [n D]) -> [n D] = x * (1.0 - 0.5) / 2 ** 2
fn s(x: [n D]) -> [n D] bool = (x > 0.0) and not (x > 1.0) or x == 0.5
fn main():
    x = zeros([2 D])
    print(a(x), b(x), shape(x))
    print(f"{sum(x):.2f} and {{braces}}")
fn padded(x: [T D]) -> [8 D] = pad(x, over=T, before=1, after=2)
