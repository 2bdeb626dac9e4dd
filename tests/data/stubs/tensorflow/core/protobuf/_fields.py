"""Typed fields with protobuf's Python type checks, for the stand-in messages."""


class Message:
    """A message whose scalar fields are declared in FIELDS as name -> (type, default).

    As in protobuf's Python runtime: a constructor keyword that is not a field raises
    ValueError, a value of the wrong type raises TypeError, an attribute that is not a field
    cannot be assigned (AttributeError).
    """

    FIELDS: dict = {}

    def __init__(self, **kwargs):
        for name, (_kind, default) in self.FIELDS.items():
            object.__setattr__(self, name, default)
        for name, value in kwargs.items():
            if name not in self.FIELDS:
                raise ValueError(f'Protocol message {type(self).__name__} has no "{name}" field.')
            setattr(self, name, value)

    def __setattr__(self, name, value):
        if name in self.FIELDS:
            kind = self.FIELDS[name][0]
            accepted = (int, float) if kind is float else kind
            if not isinstance(value, accepted):
                raise TypeError(f"{value!r} has type {type(value).__name__}, but expected one of: {kind.__name__}")
        elif not name.startswith("_"):
            raise AttributeError(f'Assignment not allowed (no field "{name}" in protocol message object).')
        object.__setattr__(self, name, value)
