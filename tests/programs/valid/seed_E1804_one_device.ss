# The seed's E1804 program with one device: it checks clean.
devices cuda[0]

dim D = 4

model M:
    param w: [D D] = normal(std=0.02)

data Ex:
    x: [D]

fn double(x: [n D]) -> [n D] = x * 2

fn both(m: M, batch: [b] Ex) -> [D D]:
    a = double(batch.x)
    return double(m.w)
