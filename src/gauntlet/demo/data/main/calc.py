def add(a, b):
    return a + b


def divide(a, b):
    return a / b
