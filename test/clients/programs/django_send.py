"""Django's mail API with its SMTP backend (Debian's python3-django), as a Django app sends."""
import json, sys

import django
from django.conf import settings

spec = json.load(open(sys.argv[1]))
settings.configure(
    EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
    EMAIL_HOST=spec["host"],
    EMAIL_PORT=spec["port"],
    EMAIL_HOST_USER=spec["user"],
    EMAIL_HOST_PASSWORD=spec["key"],
    EMAIL_USE_TLS=spec["mode"] == "starttls",
    EMAIL_USE_SSL=spec["mode"] == "tls",
    DEFAULT_CHARSET="utf-8",
)
django.setup()
from django.core.mail import EmailMultiAlternatives, get_connection  # noqa: E402

with get_connection() as connection:
    for m in spec["messages"]:
        email = EmailMultiAlternatives(
            m["subject"], m["text"], spec["from"], m["to"], cc=m["cc"], bcc=m["bcc"], connection=connection
        )
        a = m.get("attachment")
        if a:
            email.attach(a["filename"], open(a["path"], "rb").read(), a["contentType"])
        email.send()
print("sent")
