dim D = 4611686018427387904
dim E = (D + D) // (0 - 1)
fn f(x: [8]) -> [] = sum(rearrange(x, (a b) -> a b, a=4611686018427387904, b=4))
fn g(x: [n 4]) -> [n 4] = max_pool(x, over=[1], window=9223372036854775807, padding=9223372036854775807)
