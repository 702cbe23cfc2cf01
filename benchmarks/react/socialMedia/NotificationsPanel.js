import { useEffect, useState } from 'react';

export default function NotificationsPanel() {
  const [notifications, setNotifications] = useState([]);
  const [error, setError] = useState('');

  useEffect(() => {
    const load = async () => {
      try {
        const response = await fetch('/api/notifications');
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        setNotifications(await response.json());
      } catch (err) {
        setError('Failed to load notifications');
      }
    };
    load();
  }, []);

  const unread = notifications.filter((n) => !n.read).length;

  return (
    <aside>
      <h2>Notifications</h2>
      {error ? (
        <p>{error}</p>
      ) : (
        <>
          <span data-testid="unread-count">{`${unread} unread`}</span>
          <ul>
            {notifications.map((n) => (
              <li key={n.id} style={{ fontWeight: n.read ? 'normal' : 'bold' }}>{n.message}</li>
            ))}
          </ul>
        </>
      )}
    </aside>
  );
}
