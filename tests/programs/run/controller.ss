# Controller code the compact form must run: nested loops with break and
# return, branches, calls, numbers, f-strings and arguments from the host.
dim D = 3
fn scale(x: [n D], k: float) -> [n D] = x * k
fn first_multiple(of: int, limit: int) -> int:
    print(f"below {limit}:")
    for i in range(1, limit):
        if i % of == 0:
            return i
    return -1
fn grid(rows: int, cols: int):
    for r in range(rows):
        line = ""
        for c in range(cols):
            if c > r:
                break
            line = f"{line}{r}{c} "
        print(line)
fn main(steps: int, lr: float, x: [n D]) -> float:
    total = 0.0
    for i in range(steps):
        if i % 2 == 0:
            total = total + lr
        else:
            total = total - lr / 4
    grid(3, 5)
    print(f"first {first_multiple(7, 100)} none {first_multiple(7, 5)}")
    print(scale(x, total))
    return total
fn unbound(flag: int):
    if flag > 0:
        y = 1
    print(y)
