// Jakarta Mail (Eclipse Angus, from Maven Central) over SMTP, as a Java app sends.
import jakarta.activation.DataHandler;
import jakarta.mail.Message;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import jakarta.mail.util.ByteArrayDataSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

public class Send {
  public static void main(String[] args) throws Exception {
    // The spec comes as lines (the JDK has no JSON parser): key=value, messages as repeated blocks.
    java.util.List<String> lines = Files.readAllLines(Path.of(args[0]));
    java.util.Map<String, String> s = new java.util.HashMap<>();
    java.util.List<java.util.Map<String, String>> messages = new java.util.ArrayList<>();
    java.util.Map<String, String> current = s;
    for (String line : lines) {
      if (line.equals("--")) { current = new java.util.HashMap<>(); messages.add(current); continue; }
      int eq = line.indexOf('=');
      current.put(line.substring(0, eq), line.substring(eq + 1).replace("\\n", "\n"));
    }
    boolean implicit = s.get("mode").equals("tls");
    String protocol = implicit ? "smtps" : "smtp";
    Properties props = new Properties();
    props.put("mail." + protocol + ".host", s.get("host"));
    props.put("mail." + protocol + ".port", s.get("port"));
    props.put("mail." + protocol + ".auth", "true");
    props.put("mail." + protocol + ".ssl.checkserveridentity", "true");
    if (!implicit) props.put("mail.smtp.starttls.required", "true");
    Session session = Session.getInstance(props);
    Transport transport = session.getTransport(protocol);
    transport.connect(s.get("user"), s.get("key"));
    for (java.util.Map<String, String> m : messages) {
      MimeMessage msg = new MimeMessage(session);
      msg.setFrom(new InternetAddress(s.get("from")));
      msg.setRecipients(Message.RecipientType.TO, InternetAddress.parse(m.get("to")));
      if (!m.get("cc").isEmpty()) msg.setRecipients(Message.RecipientType.CC, InternetAddress.parse(m.get("cc")));
      if (!m.get("bcc").isEmpty()) msg.setRecipients(Message.RecipientType.BCC, InternetAddress.parse(m.get("bcc")));
      msg.setSubject(m.get("subject"), "UTF-8");
      if (m.containsKey("attachmentPath")) {
        MimeBodyPart text = new MimeBodyPart();
        text.setText(m.get("text"), "UTF-8");
        MimeBodyPart file = new MimeBodyPart();
        file.setDataHandler(new DataHandler(new ByteArrayDataSource(Files.readAllBytes(Path.of(m.get("attachmentPath"))), m.get("attachmentType"))));
        file.setFileName(m.get("attachmentName"));
        msg.setContent(new MimeMultipart(text, file));
      } else {
        msg.setText(m.get("text"), "UTF-8");
      }
      msg.saveChanges();
      transport.sendMessage(msg, msg.getAllRecipients());
    }
    transport.close();
    System.out.println("sent");
  }
}
