"""Models: what writes the samples.

``base`` defines the interface (:class:`Model`, :class:`GenerationRequest`, :class:`Completion`,
:class:`SamplingParams`); the built-in models and the HTTP providers implement it.
"""
