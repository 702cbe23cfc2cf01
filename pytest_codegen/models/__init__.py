"""Models: what writes the samples.

``base`` defines the interface (:class:`Model`, :class:`GenerationRequest`, :class:`Completion`,
:class:`SamplingParams`). ``builtin`` holds the models that look answers up (reference,
validate, replay); ``http`` the transport the HTTP providers share, with one wire format per
module (``openai``, ``anthropic``, ``gemini``), streamed through ``sse``; ``catalog`` the
providers and what they accept, ``rules`` what single model families refuse; ``failures``
reads error answers; ``connect`` builds a provider's model; ``registry`` turns a
``--codegen-model`` spec (or an alias, or a built-in name of ``names``) into a model, and
``listing`` shows every name and what it resolves to.
"""
