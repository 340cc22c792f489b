# What print and f-strings show: numpy's style, one line per print.
dim D = 3
fn double(x: [n D]) -> [n D] = x * 2
fn main():
    x = [[1.0, 2.0, 3.0], [4.0, 5.5, 6.0]]
    y = double(x)
    print("y", y, "sum", sum(y), "shape", shape(y))
    total = 0
    for i in range(5):
        if i == 3:
            break
        total = total + i
    print(f"total {total} mean {mean(y):.3f} max {max(y, over=D)}")
    print(argmax(y, over=D), y > 5.0, 1e-5, 0.1, 100.0)
