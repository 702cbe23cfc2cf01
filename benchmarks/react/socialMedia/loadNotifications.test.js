import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import NotificationsPanel from './NotificationsPanel';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('shows notifications and the number of unread ones', async () => {
  fetchMock.get('/api/notifications', [
    { id: 1, message: 'Priya liked your photo', read: false },
    { id: 2, message: 'Sam started following you', read: true },
    { id: 3, message: 'Leo commented on your post', read: false },
  ]);

  await act(async () => { render(<NotificationsPanel />); });

  expect(fetchMock.called('/api/notifications')).toBe(true);
  expect(screen.getByText('Priya liked your photo')).toBeInTheDocument();
  expect(screen.getByText('Sam started following you')).toBeInTheDocument();
  expect(screen.getByText('Leo commented on your post')).toBeInTheDocument();
  expect(screen.getByTestId('unread-count')).toHaveTextContent('2 unread');
}, 10000);

test('shows an error when notifications cannot be loaded', async () => {
  fetchMock.get('/api/notifications', 500);

  await act(async () => { render(<NotificationsPanel />); });

  expect(fetchMock.called('/api/notifications')).toBe(true);
  expect(screen.getByText(/failed to load notifications/i)).toBeInTheDocument();
}, 10000);
