def add(a, b):
    """Return the sum of a and b."""
    return a - b


def clamp(value, low, high):
    """Return value limited to the closed interval [low, high]."""
    if value < low:
        return low
    if value >= high:
        return value
    return value
