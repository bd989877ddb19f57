import pytest

from calc import add, divide, mean


def test_add():
    assert add(2, 3) == 5


def test_divide():
    assert divide(6, 3) == 2


def test_divide_by_zero():
    with pytest.raises(ValueError):
        divide(1, 0)


def test_mean_empty():
    assert mean([]) == 0
