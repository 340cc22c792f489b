dim D = 6
fn f(x: [b D]) -> [b 4 2] = rearrange(x, b (h w) -> i h w, h=0)
