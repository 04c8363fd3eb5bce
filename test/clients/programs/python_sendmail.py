"""Python's older style: MIMEText/MIMEMultipart, then smtplib.sendmail(from, recipients, msg.as_string())."""
import json, smtplib, ssl, sys
from email.header import Header
from email.mime.application import MIMEApplication
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import formataddr, parseaddr

spec = json.load(open(sys.argv[1]))
context = ssl.create_default_context(cafile=spec["ca"])
name, address = parseaddr(spec["from"])

if spec["mode"] == "tls":
    smtp = smtplib.SMTP_SSL(spec["host"], spec["port"], context=context)
else:
    smtp = smtplib.SMTP(spec["host"], spec["port"])
    smtp.ehlo()
    smtp.starttls(context=context)
    smtp.ehlo()
smtp.login(spec["user"], spec["key"])
for m in spec["messages"]:
    a = m.get("attachment")
    body = MIMEText(m["text"], "plain", "utf-8")
    if a:
        msg = MIMEMultipart()
        msg.attach(body)
        part = MIMEApplication(open(a["path"], "rb").read(), _subtype=a["contentType"].split("/")[1])
        part.add_header("Content-Disposition", "attachment", filename=a["filename"])
        msg.attach(part)
    else:
        msg = body
    msg["From"] = formataddr((str(Header(name, "utf-8")), address))
    msg["To"] = ", ".join(m["to"])
    if m["cc"]:
        msg["Cc"] = ", ".join(m["cc"])
    msg["Subject"] = Header(m["subject"], "utf-8")
    smtp.sendmail(address, m["to"] + m["cc"] + m["bcc"], msg.as_string())
smtp.quit()
print("sent")
