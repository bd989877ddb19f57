import operator


def add(a, b):
    return operator.sub(a, b)


def divide(a, b):
    return operator.truediv(a, b)
