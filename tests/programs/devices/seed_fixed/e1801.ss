# E1801's program fixed as its help says: the largest value computed per
# example (along D, not across the batch).
devices cpu[0 1 2]

dim D = 4

data Ex:
    x: [D]

fn largest(batch: [b] Ex) -> [b]:
    return max(batch.x, over=D)

fn main():
    data: Dataset[Ex] = load("x4.csv")
    print(largest(data |> whole))
