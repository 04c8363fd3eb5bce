"""Python's email package and smtplib as most apps use them: EmailMessage + send_message()."""
import json, mimetypes, smtplib, ssl, sys
from email.message import EmailMessage

spec = json.load(open(sys.argv[1]))
context = ssl.create_default_context(cafile=spec["ca"]) if spec.get("ca") else None


def connect():
    if spec["mode"] == "tls":
        return smtplib.SMTP_SSL(spec["host"], spec["port"], context=context)
    client = smtplib.SMTP(spec["host"], spec["port"])
    if spec["mode"] == "starttls":
        client.starttls(context=context)
    return client


with connect() as smtp:
    if spec.get("key"):
        smtp.login(spec["user"], spec["key"])
    for m in spec["messages"]:
        msg = EmailMessage()
        msg["From"] = spec["from"]
        msg["To"] = ", ".join(m["to"])
        if m["cc"]:
            msg["Cc"] = ", ".join(m["cc"])
        if m["bcc"]:
            msg["Bcc"] = ", ".join(m["bcc"])
        msg["Subject"] = m["subject"]
        msg.set_content(m["text"])
        a = m.get("attachment")
        if a:
            maintype, subtype = a["contentType"].split("/")
            msg.add_attachment(open(a["path"], "rb").read(), maintype=maintype, subtype=subtype, filename=a["filename"])
        smtp.send_message(msg)
print("sent")
