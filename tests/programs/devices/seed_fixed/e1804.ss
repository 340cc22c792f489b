# E1804's program fixed as its help says: a function of its own for whole
# values, so `double` is split at every call.
devices cpu[0 1]

dim D = 4

model M:
    param w: [D D] = normal(std=0.02)

data Ex:
    x: [D]

fn double(x: [n D]) -> [n D] = x * 2

fn double_whole(x: [n D]) -> [n D] = x * 2

fn both(m: M, batch: [b] Ex) -> [D D]:
    a = double(batch.x)
    return double_whole(m.w)

fn main():
    data: Dataset[Ex] = load("x4.csv")
    m = M(seed=1)
    print(both(m, data |> whole))
