# E1802's program fixed as its help says: the batch axis kept apart, as in
# b (h w) rather than (b d).
devices cpu[0 1]

dim D = 4

data Ex:
    x: [D]

fn grid(batch: [b] Ex) -> [b 2 2]:
    return rearrange(batch.x, b (h w) -> b h w, h=2)

fn main():
    data: Dataset[Ex] = load("x4.csv")
    print(grid(data |> whole))
