import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './applyForJob';

const fillForm = async () => {
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/full name/i), { target: { value: 'Dana Reyes' } });
  });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/email/i), { target: { value: 'dana@example.com' } });
  });
};

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('submits an application with name and email', async () => {
  fetchMock.post('/api/jobs/17/applications', { status: 201, body: { id: 'app-5' } });

  await act(async () => { render(<App />); });
  await fillForm();
  await act(async () => { fireEvent.click(screen.getByText(/submit application/i)); });

  expect(fetchMock.calls('/api/jobs/17/applications').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/jobs/17/applications').body)).toMatchObject({
    name: 'Dana Reyes',
    email: 'dana@example.com',
  });
  expect(screen.getByText(/application submitted/i)).toBeInTheDocument();
}, 10000);

test('shows an error when the application is not accepted', async () => {
  fetchMock.post('/api/jobs/17/applications', 500);

  await act(async () => { render(<App />); });
  await fillForm();
  await act(async () => { fireEvent.click(screen.getByText(/submit application/i)); });

  expect(fetchMock.calls('/api/jobs/17/applications').length).toBe(1);
  expect(screen.getByText(/application failed/i)).toBeInTheDocument();
  expect(screen.queryByText(/application submitted/i)).not.toBeInTheDocument();
}, 10000);
