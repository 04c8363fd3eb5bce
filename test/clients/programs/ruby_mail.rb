# Ruby's mail gem (Debian's ruby-mail) with its SMTP delivery method, as a Ruby app sends.
require "json"
require "mail"

spec = JSON.parse(File.read(ARGV[0]))
spec["messages"].each do |m|
  mail = Mail.new
  mail.charset = "UTF-8"
  mail.from = spec["from"]
  mail.to = m["to"]
  mail.cc = m["cc"] unless m["cc"].empty?
  mail.bcc = m["bcc"] unless m["bcc"].empty?
  mail.subject = m["subject"]
  if m["attachment"]
    text = m["text"]
    mail.text_part = Mail::Part.new do
      content_type "text/plain; charset=UTF-8"
      body text
    end
    mail.attachments[m["attachment"]["filename"]] = {
      mime_type: m["attachment"]["contentType"], content: File.binread(m["attachment"]["path"])
    }
  else
    mail.body = m["text"]
  end
  mail.delivery_method :smtp,
                       address: spec["host"], port: spec["port"], user_name: spec["user"], password: spec["key"],
                       authentication: :plain, enable_starttls_auto: spec["mode"] == "starttls", tls: spec["mode"] == "tls",
                       ca_file: spec["ca"], openssl_verify_mode: "peer"
  mail.deliver!
end
puts "sent"
