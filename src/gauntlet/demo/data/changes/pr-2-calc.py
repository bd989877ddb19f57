def add(a, b):
    return a + b


def divide(a, b):
    if b == 0:
        raise ValueError("cannot divide by zero")
    return a / b


def mean(values):
    if not values:
        return 0
    return sum(values) / len(values)
