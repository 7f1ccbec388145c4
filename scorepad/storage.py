"""WhiteNoise's manifest storage, each static file's URL worked out once per process.

Every page links the same few files (the stylesheet, the script, htmx, the icon), and
``url()`` costs some 20 µs each: the manifest lookup, the name's cleaning and quoting,
the URL joined to STATIC_URL. The manifest is read once when the storage starts (as
WhiteNoise and Django do), so a URL given once stays right for the process's life.
"""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self._urls: dict[str, str] = {}

    def url(self, name: str | None, force: bool = False) -> str:
        if force or name is None:
            return super().url(name, force)
        url = self._urls.get(name)
        if url is None:
            url = self._urls[name] = super().url(name)
        return url
